// RUN: layoutkit compile --pipeline pcf-matmul %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// The whole pipeline at the seed's tile: a kernel of 128 threads on a grid of workgroups that
// loops over the dynamic tile grid, panels in workgroup memory, mma.sync on the lanes.

// CHECK-LABEL: func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) -> memref<?x?xf32>
// CHECK:         gpu.launch_func @kernels::@matmul_kernel0 blocks in ({{.*}}) threads in (%[[T:.*]], %{{.*}}, %{{.*}})
// CHECK:       gpu.func @matmul_kernel0
// CHECK-DAG:     memref.alloc() : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.alloc() : memref<64x256xf16, #gpu.address_space<workgroup>>
// CHECK:         memref.alloca() : memref<4x16x2x2xf32>
// CHECK:         gpu.barrier
// CHECK:         nvgpu.mma.sync
// CHECK-NOT:     pcf.
// CHECK:         gpu.return
