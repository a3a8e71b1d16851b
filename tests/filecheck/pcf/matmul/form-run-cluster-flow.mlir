// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config{tile-sizes=32,32,16},pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body,pcf-form-run-cluster-flow)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 4: three run_cluster phases on the threadgroup; the K loop carries the accumulator
// (the C tile zero-padded to 32x32) as the threadgroup's shared payload.

// CHECK:      %acc0 = pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<32x32xf32>)> {
// CHECK-NEXT:   %ci = pcf.read_slice %acc[0, 0] [%ms, %ns] [1, 1]
// CHECK:        %cp = tensor.insert_slice %ci into %cp_z[0, 0] [%ms, %ns] [1, 1] : tensor<?x?xf32> into tensor<32x32xf32>
// CHECK-NEXT:   pcf.yield %cp : tensor<32x32xf32>
// CHECK:      %accK = scf.for %kk = %c0 to %kt step %c1 iter_args(%cur = %acc0) -> (!pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<32x32xf32>)>) {
// CHECK-NEXT:   %next = pcf.shared_executor.run_cluster %tg ins(%cur : {{.*}}) : {{.*}} -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<32x32xf32>)> {
// CHECK-NEXT:   ^bb0(%accv: tensor<32x32xf32>):
// CHECK:          %x = pcf.read_slice %lhs[0, %k0] [%ms, %ks] [1, 1]
// CHECK:          %z = linalg.matmul ins(%xp, %yp : tensor<32x16xf16>, tensor<16x32xf16>) outs(%accv : tensor<32x32xf32>)
// CHECK-NEXT:     pcf.yield %z
// CHECK:        scf.yield %next
// CHECK:      pcf.shared_executor.run_cluster %tg ins(%accK : {{.*}}) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
// CHECK-NEXT: ^bb0(%final: tensor<32x32xf32>):
// CHECK-NEXT:   %fs = tensor.extract_slice %final[0, 0] [%ms, %ns] [1, 1]
// CHECK-NEXT:   pcf.write_slice %fs into %acc[0, 0] [%ms, %ns] [1, 1]
