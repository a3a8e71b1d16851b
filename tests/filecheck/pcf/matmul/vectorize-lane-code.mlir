// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config{tile-sizes=32,32,16},pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body,pcf-form-run-cluster-flow,pcf-introduce-shared-memory-copies,pcf-distribute-run-cluster-to-subgroups,pcf-distribute-run-cluster-to-lanes,pcf-vectorize-lane-code)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 8: memrefs for the function, the fragments in a private memref.alloca updated with
// vector.load / vector.store (no tensor left).

// CHECK-LABEL: func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) -> memref<?x?xf32>
// CHECK:         %M = memref.dim %a, %c0 : memref<?x?xf16>
// CHECK:         %frags = memref.alloca() : memref<1x2x2x2xf32>
// CHECK:         vector.store %cfi, %frags[%mi, %ni, %c0, %c0]
// CHECK:         scf.for %kk = %c0 to %kt step %c1 {
// CHECK:           vector.transfer_read %a[%grow, %gcol], %zh : memref<?x?xf16>, vector<1x8xf16>
// CHECK:           %cf = vector.load %frags[%[[MI:.*]], %[[NI:.*]], %c0, %c0] : memref<1x2x2x2xf32>, vector<2x2xf32>
// CHECK-NEXT:      %dm = nvgpu.mma.sync
// CHECK-NEXT:      vector.store %dm, %frags[%[[MI]], %[[NI]], %c0, %c0]
// CHECK:         func.return %r : memref<?x?xf32>
// CHECK-NOT:     tensor<
