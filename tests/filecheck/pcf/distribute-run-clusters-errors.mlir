// RUN: not layoutkit opt --pcf-distribute-run-clusters %s 2>&1 | filecheck %s
// A tensor body holding an op the baseline cannot distribute element by element (here a
// transpose: element (r, c) needs element (c, r), held by another worker) is refused,
// naming the op, instead of producing wrong code.
// CHECK: error: pcf-distribute-run-clusters: linalg.transpose: cannot distribute this op of a tensor run_cluster region
// CHECK-NOT: Traceback
func.func @transpose(%one: index, %b: memref<4x4xf32>) {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute(%out = %b)[%wg: index]
      : (!pcf.sref<4x4xf32, #iree_codegen.workgroup_scope>) -> (memref<4x4xf32>) {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope) execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
        %t = pcf.read_slice %out[0, 0] [4, 4] [1, 1] : !pcf.sref<4x4xf32, #iree_codegen.workgroup_scope> to tensor<4x4xf32>
        %e = arith.constant dense<0.0> : tensor<4x4xf32>
        %tt = linalg.transpose ins(%t : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) permutation = [1, 0]
        pcf.write_slice %tt into %out[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into !pcf.sref<4x4xf32, #iree_codegen.workgroup_scope>
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return
}
