// A host function launching two kernels: x *= alpha, then per-block sums of x.
// layoutkit simulate examples/kernels/scale_then_reduce.mlir --function main --arg x=x.npy --arg alpha=0.5 --out res/
module attributes {gpu.container_module} {
  func.func @main(%x: memref<256xf32>, %alpha: f32) -> (memref<4xf32>, f32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %sums = memref.alloc() : memref<4xf32>
    gpu.launch_func @m::@scale blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1) args(%x : memref<256xf32>, %alpha : f32)
    gpu.launch_func @m::@total blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%x : memref<256xf32>, %sums : memref<4xf32>)
    %s1 = memref.load %sums[%c1] : memref<4xf32>
    %twice = arith.addf %s1, %s1 : f32
    return %sums, %twice : memref<4xf32>, f32
  }
  gpu.module @m {
    gpu.func @scale(%x: memref<256xf32>, %alpha: f32) kernel {
      %i = gpu.global_id x
      %v = memref.load %x[%i] : memref<256xf32>
      %r = arith.mulf %v, %alpha : f32
      memref.store %r, %x[%i] : memref<256xf32>
      gpu.return
    }
    gpu.func @total(%x: memref<256xf32>, %sums: memref<4xf32>) kernel {
      %i = gpu.global_id x
      %b = gpu.block_id x
      %l = gpu.lane_id
      %v = memref.load %x[%i] : memref<256xf32>
      %r = gpu.subgroup_reduce add %v : (f32) -> f32
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %l, %c0 : index
      scf.if %first {
        %old = memref.atomic_rmw addf %r, %sums[%b] : (f32, memref<4xf32>) -> f32
      }
      gpu.return
    }
  }
}
