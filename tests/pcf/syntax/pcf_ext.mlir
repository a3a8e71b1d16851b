// The PCF collective extension (docs/pcf-extension.md): every type and op of it, verified.
func.func @horizontal(%init: tensor<64x64xf32>, %lhs: tensor<64x64xf16>, %h: index) -> tensor<64x64xf32> {
  %r = pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute(%acc = %init, %a <- %lhs)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
         : (!pcf.sref<64x64xf32, #iree_gpu.subgroup_scope>, !pcf.sref<64x64xf16, #iree_gpu.subgroup_scope>)
        -> (tensor<64x64xf32>) reads(tensor<64x64xf16>) {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>, %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
      %tile = pcf.shared_executor.run_cluster %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(tensor<16x64xf16>)> {
        %t = pcf.read_slice %a[0, 0] [16, 64] [1, 1] : !pcf.sref<64x64xf16, #iree_gpu.subgroup_scope> to tensor<16x64xf16>
        pcf.yield %t : tensor<16x64xf16>
      }
      pcf.shared_executor.run_cluster %right ins(%tile : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(tensor<16x64xf16>)>) : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
      ^bb0(%t: tensor<16x64xf16>):
        pcf.yield
      }
      %ids = pcf.shared_executor.run_thread %right : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right, private(index)> {
      ^bb0(%tid: index):
        pcf.yield %tid : index
      }
      pcf.shared_executor.run_thread %right ins(%ids : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right, private(index)>) : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
      ^bb0(%tid: index, %mine: index):
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  func.return %r : tensor<64x64xf32>
}
func.func @grid2d(%init: memref<8x8xf32>, %x: index, %y: index) {
  pcf.shared_executor scope(#iree_gpu.lane_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.lane_scope, shared(vector<4xf32>), private(i32)>] {
    pcf.shared_executor.tile_group %tg split(%x, %y) : !pcf.threadgroup<#iree_gpu.lane_scope, shared(vector<4xf32>), private(i32)> {
    ^bb0(%c00: !pcf.cluster<#iree_gpu.lane_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, 0, d1)>, tg.c00>, %c01: !pcf.cluster<#iree_gpu.lane_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, d1, s1)>, tg.c01>, %c1: !pcf.cluster<#iree_gpu.lane_scope, affine_map<(d0, d1)[s0, s1] -> (d0, s0, 0, s1)>, tg.c1>):
      pcf.shared_executor.tile_group %c1 split(%y) : !pcf.cluster<#iree_gpu.lane_scope, affine_map<(d0, d1)[s0, s1] -> (d0, s0, 0, s1)>, tg.c1> {
      ^bb0(%lo: !pcf.cluster<#iree_gpu.lane_scope, affine_map<(d0)[s0, s1] -> (0, s0, 0, d0)>, tg.c1.lo>, %hi: !pcf.cluster<#iree_gpu.lane_scope, affine_map<(d0)[s0, s1] -> (0, s0, d0, s1)>, tg.c1.hi>):
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  func.return
}
func.func @views(%s: !pcf.sref<?x16xf32, sync(#iree_gpu.subgroup_scope)>, %i: index, %n: index) {
  %v = pcf.subview %s[%i, 0] [4, 8] [1, 2] : !pcf.sref<?x16xf32, sync(#iree_gpu.subgroup_scope)> to !pcf.sref<4x8xf32, sync(#iree_gpu.subgroup_scope)>
  %e = pcf.expand_shape %s [[0, 1], [2]] output_shape [%n, 8, 16] : !pcf.sref<?x16xf32, sync(#iree_gpu.subgroup_scope)> into !pcf.sref<?x8x16xf32, sync(#iree_gpu.subgroup_scope)>
  %f = pcf.expand_shape %v [[0], [1, 2]] output_shape [4, 2, 4] : !pcf.sref<4x8xf32, sync(#iree_gpu.subgroup_scope)> into !pcf.sref<4x2x4xf32, sync(#iree_gpu.subgroup_scope)>
  func.return
}
func.func @initialized(%init: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %r = pcf.shared_executor scope(#iree_gpu.subgroup_scope) initialize {
    %a = pcf.alloc(%n) : !pcf.sref<?xf16, #iree_gpu.subgroup_scope>
    pcf.yield %a : !pcf.sref<?xf16, #iree_gpu.subgroup_scope>
  } -> (%scratch: !pcf.sref<?xf16, #iree_gpu.subgroup_scope>)
    execute(%ref = %init)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
         : (!pcf.sref<8xf32, #iree_gpu.subgroup_scope>)
        -> (tensor<8xf32>) {
    pcf.return
  }
  func.return %r : tensor<8xf32>
}
