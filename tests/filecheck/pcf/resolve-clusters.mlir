// RUN: layoutkit opt --pcf-resolve-clusters %s | filecheck %s
// Two clusters of subgroups [0, h) and [h, n): the shared_executor becomes a synced subgroup
// pcf.generic, the worker's cluster index is computed from its id and the bounds (cluster 1
// when lo1 <= id < hi1, else 0), and the tile_group's region is replicated into one
// scf.index_switch case per cluster. In case k, run_thread on cluster k is inlined with the
// tile-relative id (id - lo_k); the other cluster's run_thread converts away.

// CHECK-LABEL: func.func @two(%buf: memref<8xindex>, %h: index)
// CHECK:         pcf.generic sync true scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:      execute[%worker: index, %workers: index] {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %tg_left_lo = affine.apply affine_map<(d0)[s0] -> (0)>(%h)[%workers]
// CHECK-NEXT:      %tg_left_hi = affine.apply affine_map<(d0)[s0] -> (d0)>(%h)[%workers]
// CHECK-NEXT:      %tg_right_lo = affine.apply affine_map<(d0)[s0] -> (d0)>(%h)[%workers]
// CHECK-NEXT:      %tg_right_hi = affine.apply affine_map<(d0)[s0] -> (s0)>(%h)[%workers]
// CHECK-NEXT:      %[[GE:.*]] = arith.cmpi ule, %tg_right_lo, %worker : index
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi ult, %worker, %tg_right_hi : index
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %cluster = arith.select %[[IN]], %[[ONE]], %[[ZERO]] : index
// CHECK-NEXT:      scf.index_switch %cluster
// CHECK-NEXT:      case 0 {
// CHECK-NEXT:        %t = arith.subi %worker, %tg_left_lo : index
// CHECK-NEXT:        %[[G:.*]] = gpu.subgroup_id : index
// CHECK-NEXT:        memref.store %t, %buf[%[[G]]] : memref<8xindex>
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      case 1 {
// CHECK-NEXT:        %u = arith.subi %worker, %tg_right_lo : index
// CHECK-NEXT:        %[[G1:.*]] = gpu.subgroup_id : index
// CHECK-NEXT:        %[[TEN:.*]] = arith.constant 10 : index
// CHECK-NEXT:        %[[V:.*]] = arith.addi %u, %[[TEN]] : index
// CHECK-NEXT:        memref.store %[[V]], %buf[%[[G1]]] : memref<8xindex>
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      default {
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      pcf.return
// CHECK-NOT:     pcf.shared_executor
func.func @two(%buf: memref<8xindex>, %h: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
         %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
      pcf.shared_executor.run_thread %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> {
      ^bb0(%t: index):
        %g = gpu.subgroup_id : index
        memref.store %t, %buf[%g] : memref<8xindex>
        pcf.yield
      }
      pcf.shared_executor.run_thread %right : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
      ^bb0(%u: index):
        %g = gpu.subgroup_id : index
        %c10 = arith.constant 10 : index
        %v = arith.addi %u, %c10 : index
        memref.store %v, %buf[%g] : memref<8xindex>
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  func.return
}
