// Warp specialization by hand: warps 0-1 (threads 0-63) copy 64-element tiles of %src into
// shared memory, warps 2-3 read each tile reversed and write twice it to %dst. Two named
// barriers hand the tile over: 1 'full' (producer arrives, consumer waits), 2 'empty'
// (consumer arrives, producer waits). dst[64 k + i] = 2 * src[64 k + 63 - i].
//   layoutkit simulate examples/kernels/producer_consumer.mlir --kernel pc --grid 1 --block 128 ...
gpu.module @kernels {
  gpu.func @pc(%src: memref<256xf32>, %dst: memref<256xf32>) kernel {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %two = arith.constant 2.0 : f32
    %w = arith.divui %t, %c64 : index
    %i = arith.remui %t, %c64 : index
    %full = arith.constant 1 : i32
    %empty = arith.constant 2 : i32
    %n = arith.constant 128 : i32
    %sh = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    scf.index_switch %w
    case 0 {
      scf.for %k = %c0 to %c4 step %c1 {
        nvvm.barrier id = %empty number_of_threads = %n
        %base = arith.muli %k, %c64 : index
        %g = arith.addi %base, %i : index
        %x = memref.load %src[%g] : memref<256xf32>
        memref.store %x, %sh[%i] : memref<64xf32, #gpu.address_space<workgroup>>
        nvvm.barrier.arrive id = %full number_of_threads = %n
      }
      scf.yield
    }
    default {
      scf.for %k = %c0 to %c4 step %c1 {
        nvvm.barrier.arrive id = %empty number_of_threads = %n
        nvvm.barrier id = %full number_of_threads = %n
        %j = arith.subi %c63, %i : index
        %x = memref.load %sh[%j] : memref<64xf32, #gpu.address_space<workgroup>>
        %y = arith.mulf %x, %two : f32
        %base = arith.muli %k, %c64 : index
        %g = arith.addi %base, %i : index
        memref.store %y, %dst[%g] : memref<256xf32>
      }
      scf.yield
    }
    gpu.return
  }
}
