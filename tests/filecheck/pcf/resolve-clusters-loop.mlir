// RUN: layoutkit opt --pcf-resolve-clusters %s | filecheck %s
// Control flow is cloned and converted (seed 002): a loop carrying tg.left's private(f32)
// payload keeps one f32 iter_arg in the tg.left case and none in the tg.right case; an scf.if
// yielding the payload is converted the same way; the payload a run_thread reads (ins) is the
// converted value.

// CHECK-LABEL: func.func @carried
// CHECK:         scf.index_switch %cluster
// CHECK-NEXT:    case 0 {
// CHECK:           %[[INIT:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[LOOP:.*]] = scf.for %i = %c0 to %n step %c1 iter_args(%[[X:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[IF:.*]] = scf.if %flag -> (f32) {
// CHECK-NEXT:          %[[D:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK-NEXT:          scf.yield %[[D]] : f32
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %[[X]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield %[[IF]] : f32
// CHECK-NEXT:      }
// CHECK:           memref.store %[[LOOP]], %out[%{{.*}}] : memref<8xf32>
// CHECK:         case 1 {
// CHECK-NEXT:      scf.for %i_1 = %c0 to %n step %c1 {
// CHECK-NEXT:        scf.if %flag {
// CHECK-NEXT:        } else {
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     pcf.shared_executor
func.func @carried(%out: memref<8xf32>, %h: index, %n: index, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
         %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
      %init = pcf.shared_executor.run_thread %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>
          -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)> {
      ^bb0(%t: index):
        %one = arith.constant 1.0 : f32
        pcf.yield %one : f32
      }
      %last = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init)
          -> (!pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>) {
        %y = scf.if %flag -> (!pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>) {
          %d = pcf.shared_executor.run_thread %left ins(%x : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>)
              : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>
              -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)> {
          ^bb0(%t: index, %v: f32):
            %s = arith.addf %v, %v : f32
            pcf.yield %s : f32
          }
          scf.yield %d : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>
        } else {
          scf.yield %x : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>
        }
        scf.yield %y : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>
      }
      pcf.shared_executor.run_thread %left ins(%last : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, private(f32)>)
          : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> {
      ^bb0(%t: index, %v: f32):
        memref.store %v, %out[%t] : memref<8xf32>
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  func.return
}
