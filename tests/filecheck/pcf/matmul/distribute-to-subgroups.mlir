// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config{tile-sizes=32,32,16},pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body,pcf-form-run-cluster-flow,pcf-introduce-shared-memory-copies,pcf-distribute-run-cluster-to-subgroups)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 6: a subgroup generic over 2x2 subgroups (sm = sg / 2, sn = sg mod 2), each owning a
// 16x16 accumulator at (16 sm, 16 sn) and copying a quarter of each panel (8 rows of A, 4 k
// rows of B); the phases stay run_cluster at lane scope, with barriers around the compute.

// CHECK:      %lds_a = pcf.alloc() : !pcf.sref<32x16xf16, #iree_gpu.subgroup_scope>
// CHECK:      %d = pcf.generic scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:   execute(%acc = %ct)[%sg: index, %nsg: index]
// CHECK:        %sm = arith.divui %sg, %c2 : index
// CHECK-NEXT:   %sn = arith.remui %sg, %c2 : index
// CHECK-NEXT:   %sub_m = arith.constant 16 : index
// CHECK-NEXT:   %sub_n = arith.constant 16 : index
// CHECK-NEXT:   %quarter_m = arith.constant 8 : index
// CHECK-NEXT:   %quarter_k = arith.constant 4 : index
// CHECK:        pcf.shared_executor scope(#iree_gpu.lane_scope)
// CHECK-NEXT:     execute[%lanes: !pcf.threadgroup<#iree_gpu.lane_scope>] {
// CHECK-NEXT:     %acc0 = pcf.shared_executor.run_cluster %lanes : {{.*}} -> !pcf.threadgroup<#iree_gpu.lane_scope, shared(tensor<16x16xf32>)>
// CHECK-NEXT:       %ci = pcf.read_slice %acc[%om, %on] [%msub, %nsub] [1, 1]
// CHECK:          scf.for %kk
// CHECK:            pcf.shared_executor.run_cluster %lanes : !pcf.threadgroup<#iree_gpu.lane_scope> {
// CHECK:              pcf.write_slice %xp into %lds_a[%qa, 0] [8, 16] [1, 1]
// CHECK:              pcf.write_slice %yp into %lds_b[%qb, 0] [4, 32] [1, 1]
// CHECK:            gpu.barrier
// CHECK-NEXT:       %next = pcf.shared_executor.run_cluster %lanes ins(%cur
// CHECK:              %xs = pcf.read_slice %lds_a[%om, 0] [16, 16] [1, 1]
// CHECK-NEXT:         %ys = pcf.read_slice %lds_b[0, %on] [16, 16] [1, 1]
// CHECK-NEXT:         %z = linalg.matmul ins(%xs, %ys : tensor<16x16xf16>, tensor<16x16xf16>) outs(%accv : tensor<16x16xf32>)
// CHECK:            gpu.barrier
// CHECK-NEXT:       scf.yield %next
// CHECK:          pcf.write_slice %fs into %acc[%om, %on] [%msub, %nsub] [1, 1]
