// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config{tile-sizes=32,32,16},pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body,pcf-form-run-cluster-flow,pcf-introduce-shared-memory-copies,pcf-distribute-run-cluster-to-subgroups,pcf-distribute-run-cluster-to-lanes)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 7: lane code. A subgroup's 16x16 block is 1x2 mma tiles of 16x8: each lane carries a
// packed tensor<1x2x2x2xf32> of C fragments through K; lanes copy 8-element chunks (8 rows x
// 2 chunks of A, 4 rows x 4 chunks of B per subgroup) and multiply with nvgpu.mma.sync.

// CHECK:      pcf.generic scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:   execute[%sg: index, %nsg: index] {
// CHECK:        pcf.generic scope(#iree_gpu.lane_scope)
// CHECK-NEXT:     execute[%lane: index, %nlane: index] {
// CHECK:          %chunks_a = arith.constant 16 : index
// CHECK-NEXT:     %chunks_b = arith.constant 16 : index
// CHECK:          %g = arith.divui %lane, %c4 : index
// CHECK-NEXT:     %pr = arith.remui %lane, %c4 : index
// CHECK:          %swz_rows_a = arith.constant 2 : index
// CHECK-NEXT:     %swz_rows_b = arith.constant 4 : index
// CHECK:          %frags0 = arith.constant dense<0.000000e+00> : tensor<1x2x2x2xf32>
// CHECK:          %t_out = scf.for %mi = %c0 to %mi_n step %c1 iter_args(%t = %frags0) -> (tensor<1x2x2x2xf32>) {
// CHECK:            %r0 = pcf.read_slice %out[%row, %col] [1, 2] [1, 1] {{.*}} to vector<1x2xf32>
// CHECK:          %accK = scf.for %kk = %c0 to %kt step %c1 iter_args(%cur = %t_out) -> (tensor<1x2x2x2xf32>) {
// CHECK:            scf.for %ch = %lane to %chunks_a step %nlane {
// CHECK:              %v = vector.transfer_read %a[%grow, %gcol], %zh : tensor<?x?xf16>, vector<1x8xf16>
// CHECK:              %ccs = arith.xori %cc, %rsw : index
// CHECK-NEXT:         pcf.write_slice %v into %lds_a[%ra, %ccs] [1, 8] [1, 1]
// CHECK:            gpu.barrier
// CHECK:            %a0m = pcf.read_slice %lds_a[%fr, %kas] [1, 2] [1, 1] {{.*}} to vector<1x2xf16>
// CHECK:            %b0m = pcf.read_slice %lds_b[%ka, %nbs] [2, 1] [1, 1] {{.*}} to vector<2x1xf16>
// CHECK:            %cf = vector.transfer_read %v2[%[[MI:.*]], %[[NI:.*]], %c0, %c0]
// CHECK-NEXT:       %dm = nvgpu.mma.sync (%fa3, %fb1, %cf) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:       %v3 = vector.transfer_write %dm, %v2[%[[MI]], %[[NI]], %c0, %c0]
// CHECK:            gpu.barrier
// CHECK:          pcf.write_slice %d0 into %out[%[[ROW:row[_0-9]*]], %[[COL:col[_0-9]*]]] [1, 2] [1, 1]
// CHECK-NEXT:     pcf.write_slice %d1 into %out[%row8{{[_0-9]*}}, %[[COL]]] [1, 2] [1, 1]
// CHECK-NOT:  pcf.shared_executor
