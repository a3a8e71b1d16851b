// RUN: layoutkit opt --tile-to-workgroups="tile-sizes=8,8" --distribute-to-threads --gpu-outline-kernels %s | filecheck %s
// Kernel arguments in order of first use.
// 32x16 in 8x8 tiles: grid (x=2, y=4), block (8, 8); block ids scale by the tile step.
// gpu.block_id/thread_id print in MLIR's custom form (iree-opt rejects the generic #gpu<dim y>).

// CHECK:       builtin.module attributes {gpu.container_module}
// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         gpu.launch_func @kernels::@matmul_kernel0 blocks in (%[[TWO]], %[[FOUR]], %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%c : memref<32x16xf32>, %a : memref<32x24xf32>, %b : memref<24x16xf32>)
// CHECK-NEXT:    func.return
// CHECK:       gpu.module @kernels {
// CHECK-NEXT:    gpu.func @matmul_kernel0(%c: memref<32x16xf32>, %a: memref<32x24xf32>, %b: memref<24x16xf32>) kernel {
// CHECK:           gpu.block_id y
// CHECK:           gpu.block_id x
// CHECK:           gpu.thread_id y
// CHECK:           gpu.thread_id x
// CHECK-NOT:       scf.forall
// CHECK:           gpu.return
func.func @matmul(%a: memref<32x24xf32>, %b: memref<24x16xf32>, %c: memref<32x16xf32>) {
  linalg.matmul ins(%a, %b : memref<32x24xf32>, memref<24x16xf32>) outs(%c : memref<32x16xf32>)
  return
}
