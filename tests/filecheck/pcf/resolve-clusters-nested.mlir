// RUN: layoutkit opt --pcf-resolve-clusters %s | filecheck %s
// A tile_group splitting tg.left (ids outer.inner: tg.left.a, tg.left.b) is resolved inside
// tg.left's case with ids relative to tg.left (%worker - lo) and tg.left's size as the worker
// count, and dropped from tg.right's case. A run_thread on tg.left inside tg.left.b's region
// gets the id relative to tg.left, one on tg.left.b the id relative to tg.left.b.

// CHECK:       scf.index_switch %cluster
// CHECK-NEXT:  case 0 {
// CHECK-NEXT:    %tg_left_worker = arith.subi %worker, %tg_left_lo : index
// CHECK-NEXT:    %tg_left_workers = arith.subi %tg_left_hi, %tg_left_lo : index
// CHECK:         %tg_left_a_lo = affine.apply affine_map<(d0)[s0] -> (0)>(%g)[%tg_left_workers]
// CHECK:         %tg_left_b_lo = affine.apply affine_map<(d0)[s0] -> (d0)>(%g)[%tg_left_workers]
// CHECK:         %[[INNER:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK:         scf.index_switch %[[INNER]]
// CHECK-NEXT:    case 0 {
// CHECK-NEXT:      %ta = arith.subi %tg_left_worker, %tg_left_a_lo : index
// CHECK:           memref.store
// CHECK:         case 1 {
// CHECK-NEXT:      %tb = arith.subi %tg_left_worker, %tg_left_b_lo : index
// CHECK:           memref.store
// CHECK-NEXT:      %{{tl.*}} = arith.subi %worker, %tg_left_lo : index
// CHECK:           memref.store
// CHECK:       case 1 {
// CHECK-NEXT:    %tr = arith.subi %worker, %tg_right_lo : index
// CHECK-NOT:     scf.index_switch
// CHECK:         memref.store
// CHECK-NOT:   pcf.shared_executor
func.func @nested(%out: memref<4xindex>, %out2: memref<4xindex>, %one: index) {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute[%wg: index] {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %h = arith.constant 3 : index
      %g = arith.constant 1 : index
      pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
           %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
        pcf.shared_executor.tile_group %left split(%g) : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> {
        ^bb0(%a: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left.a>,
             %b: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.left.b>):
          pcf.shared_executor.run_thread %a : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left.a> {
          ^bb0(%ta: index):
            %sg = gpu.subgroup_id : index
            %c100 = arith.constant 100 : index
            %v = arith.addi %ta, %c100 : index
            memref.store %v, %out[%sg] : memref<4xindex>
            pcf.yield
          }
          pcf.shared_executor.run_thread %b : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.left.b> {
          ^bb0(%tb: index):
            %sg = gpu.subgroup_id : index
            %c200 = arith.constant 200 : index
            %v = arith.addi %tb, %c200 : index
            memref.store %v, %out[%sg] : memref<4xindex>
            pcf.yield
          }
          pcf.shared_executor.run_thread %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> {
          ^bb0(%tl: index):
            %sg = gpu.subgroup_id : index
            %c400 = arith.constant 400 : index
            %v = arith.addi %tl, %c400 : index
            memref.store %v, %out2[%sg] : memref<4xindex>
            pcf.yield
          }
          pcf.yield
        }
        pcf.shared_executor.run_thread %right : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
        ^bb0(%tr: index):
          %sg = gpu.subgroup_id : index
          %c300 = arith.constant 300 : index
          %v = arith.addi %tr, %c300 : index
          memref.store %v, %out[%sg] : memref<4xindex>
          pcf.yield
        }
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return
}
