// RUN: not layoutkit opt %s 2>&1 | filecheck %s
// Two clusters whose bounds overlap (worker d0 - 1 is in both) are rejected with the bounds
// evaluated at the sample split value and worker count.
// CHECK: extension-overlap.mlir:9:5: error: pcf.shared_executor.tile_group: clusters tg.a and tg.b overlap: bounds [(0, 32)] and [(31, 64)] (d = [32], s = [64])
// CHECK-NOT: Traceback
func.func @overlap(%h: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%a: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.a>, %b: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0 - 1, s0)>, tg.b>):
      pcf.yield
    }
    pcf.return
  }
  func.return
}
