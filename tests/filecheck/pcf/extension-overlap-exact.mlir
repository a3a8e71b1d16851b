// RUN: not layoutkit opt %s 2>&1 | filecheck %s
// Bounds that are a partition at the sample points (d0 = 32 of 64, 48 of 97) but overlap from
// d0 = 90 on: the exact check (integer Fourier-Motzkin per residue of d0 mod 90) finds the
// witness d0 = s0 = 90, where worker 89 is in both clusters.
// CHECK: extension-overlap-exact.mlir:10:5: error: pcf.shared_executor.tile_group: clusters tg.a and tg.b overlap: bounds [(0, 90)] and [(89, 90)] (d = [90], s = [90])
// CHECK-NOT: Traceback
func.func @overlap_far(%h: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%a: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.a>, %b: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0 - d0 floordiv 90, s0)>, tg.b>):
      pcf.yield
    }
    pcf.return
  }
  func.return
}
