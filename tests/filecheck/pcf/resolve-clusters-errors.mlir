// RUN: not layoutkit opt --pcf-resolve-clusters %s 2>&1 | filecheck %s
// A run_cluster of tg.right reading tg.left's shared payload needs that payload moved through
// workgroup memory: the pass says so instead of producing wrong code.
// CHECK: error: pcf-resolve-clusters: run_cluster on tg.right reads the shared payload of tg.left (ins #0): pass it through workgroup memory (pcf.alloc) and named barriers; not resolved automatically yet
// CHECK-NOT: Traceback
func.func @cross(%h: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
         %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
      %p = pcf.shared_executor.run_cluster %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>
          -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(f32)> {
        %one = arith.constant 1.0 : f32
        pcf.yield %one : f32
      }
      pcf.shared_executor.run_cluster %right ins(%p : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(f32)>)
          : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
      ^bb0(%v: f32):
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  func.return
}
