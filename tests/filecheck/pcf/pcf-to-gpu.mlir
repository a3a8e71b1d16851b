// RUN: layoutkit compile --pipeline pcf-to-gpu --workgroup-size 64 --subgroup-size 16 %S/../../../examples/pcf/tiled_scale.mlir | filecheck %s
// The example's workgroup loop becomes a kernel on 64 workgroups (dynamic counts) of 64
// threads; the subgroup and lane generics become divisions of gpu.thread_id.

// CHECK:       builtin.module attributes {gpu.container_module}
// CHECK-LABEL: func.func @scale_tiles(%src: memref<?x?xf32>, %dst: memref<?x?xf32>, %tm: index, %tn: index) -> memref<?x?xf32>
// CHECK:         %[[N:.*]] = arith.constant 64 : index
// CHECK:         gpu.launch_func @kernels::@scale_tiles_kernel0 blocks in (%[[N]], %{{.*}}, %{{.*}}) threads in (%[[N]], %{{.*}}, %{{.*}}) args(%tm : index, %tn : index, %src : memref<?x?xf32>, %dst : memref<?x?xf32>)
// CHECK-NEXT:    func.return %dst : memref<?x?xf32>
// CHECK:       gpu.func @scale_tiles_kernel0
// CHECK:         gpu.block_id x
// CHECK:         scf.for
// CHECK:         %[[T:.*]] = gpu.thread_id x
// CHECK:         %sg = arith.divui %[[T]], %{{.*}} : index
// CHECK:         %lane = arith.remui %[[T]], %{{.*}} : index
// CHECK:         vector.transfer_write
// CHECK-NOT:     pcf.
// CHECK:         gpu.return
