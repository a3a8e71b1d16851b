// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config,pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 3: the tile's matmul inside a subgroup-scope shared_executor: the C tile read-write,
// the A and B tiles read-only; the schedule is unchanged.

// CHECK:      %d = pcf.shared_executor scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:   execute(%acc = %ct, %lhs <- %at, %rhs <- %bt)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
// CHECK-NEXT:   : (!pcf.sref<?x?xf32, #iree_gpu.subgroup_scope>, !pcf.sref<?x?xf16, #iree_gpu.subgroup_scope>, !pcf.sref<?x?xf16, #iree_gpu.subgroup_scope>)
// CHECK-NEXT:   -> (tensor<?x?xf32>) reads(tensor<?x?xf16>, tensor<?x?xf16>) {
// CHECK-NEXT:   %x = pcf.read_slice %lhs[0, 0] [%ms, %K] [1, 1]
// CHECK-NEXT:   %y = pcf.read_slice %rhs[0, 0] [%K, %ns] [1, 1]
// CHECK-NEXT:   %z0 = pcf.read_slice %acc[0, 0] [%ms, %ns] [1, 1]
// CHECK-NEXT:   %z = linalg.matmul {{.*}} ins(%x, %y : {{.*}}) outs(%z0 : tensor<?x?xf32>)
// CHECK-NEXT:   pcf.write_slice %z into %acc[0, 0] [%ms, %ns] [1, 1]
// CHECK-NEXT:   pcf.return
// CHECK:      pcf.write_slice %d into %out
