// RUN: layoutkit opt %s | filecheck %s
// RUN: layoutkit opt %s | layoutkit opt | filecheck %s
// The collective extension (docs/pcf-extension.md) prints back as written: a subgroup
// threadgroup split at %h into a loading cluster and a computing one, a shared payload
// flowing between them, per-worker ids in run_thread, and the sref views.

// CHECK-LABEL: func.func @split
// CHECK:      %r = pcf.shared_executor scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:   execute(%acc = %init, %a <- %lhs)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
// CHECK-NEXT:        : (!pcf.sref<64xf32, #iree_gpu.subgroup_scope>, !pcf.sref<64xf16, #iree_gpu.subgroup_scope>)
// CHECK-NEXT:       -> (tensor<64xf32>) reads(tensor<64xf16>) {
// CHECK-NEXT:   pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
// CHECK-NEXT:   ^bb0(%load: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load>, %mma: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.mma>):
// CHECK-NEXT:     %tile = pcf.shared_executor.run_cluster %load : {{.*}}tg.load> -> {{.*}}tg.load, shared(tensor<16xf16>)> {
// CHECK:          pcf.shared_executor.run_cluster %mma ins(%tile : {{.*}}tg.load, shared(tensor<16xf16>)>) : {{.*}}tg.mma> {
// CHECK-NEXT:     ^bb0(%got: tensor<16xf16>):
// CHECK:          %own = pcf.shared_executor.run_thread %mma : {{.*}} -> {{.*}}tg.mma, private(index)> {
// CHECK-NEXT:     ^bb0(%tid: index):
// CHECK-NEXT:       pcf.yield %tid : index
// CHECK:        pcf.return
func.func @split(%init: tensor<64xf32>, %lhs: tensor<64xf16>, %h: index) -> tensor<64xf32> {
  %r = pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute(%acc = %init, %a <- %lhs)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
         : (!pcf.sref<64xf32, #iree_gpu.subgroup_scope>, !pcf.sref<64xf16, #iree_gpu.subgroup_scope>)
        -> (tensor<64xf32>) reads(tensor<64xf16>) {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%load: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load>, %mma: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.mma>):
      %tile = pcf.shared_executor.run_cluster %load : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load> -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load, shared(tensor<16xf16>)> {
        %t = pcf.read_slice %a[0] [16] [1] : !pcf.sref<64xf16, #iree_gpu.subgroup_scope> to tensor<16xf16>
        pcf.yield %t : tensor<16xf16>
      }
      pcf.shared_executor.run_cluster %mma ins(%tile : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load, shared(tensor<16xf16>)>) : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.mma> {
      ^bb0(%got: tensor<16xf16>):
        pcf.yield
      }
      %own = pcf.shared_executor.run_thread %mma : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.mma> -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.mma, private(index)> {
      ^bb0(%tid: index):
        pcf.yield %tid : index
      }
      pcf.yield
    }
    pcf.return
  }
  func.return %r : tensor<64xf32>
}

// CHECK-LABEL: func.func @views
// CHECK-NEXT: %v = pcf.subview %s[%i, 0] [4, 8] [1, 2] : !pcf.sref<?x16xf32, sync(#iree_gpu.lane_scope)> to !pcf.sref<4x8xf32, sync(#iree_gpu.lane_scope)>
// CHECK-NEXT: %e = pcf.expand_shape %s {{\[\[}}0, 1], [2]] output_shape [%n, 8, 16] : !pcf.sref<?x16xf32, sync(#iree_gpu.lane_scope)> into !pcf.sref<?x8x16xf32, sync(#iree_gpu.lane_scope)>
func.func @views(%s: !pcf.sref<?x16xf32, sync(#iree_gpu.lane_scope)>, %i: index, %n: index) {
  %v = pcf.subview %s[%i, 0] [4, 8] [1, 2] : !pcf.sref<?x16xf32, sync(#iree_gpu.lane_scope)> to !pcf.sref<4x8xf32, sync(#iree_gpu.lane_scope)>
  %e = pcf.expand_shape %s [[0, 1], [2]] output_shape [%n, 8, 16] : !pcf.sref<?x16xf32, sync(#iree_gpu.lane_scope)> into !pcf.sref<?x8x16xf32, sync(#iree_gpu.lane_scope)>
  func.return
}
