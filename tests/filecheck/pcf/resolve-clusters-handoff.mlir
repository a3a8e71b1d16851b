// RUN: layoutkit opt --pcf-resolve-clusters %s | filecheck %s
// tg.right reads the shared payload (vector<4xf32>, f32) that tg.left's run_cluster yields:
// the payload goes through workgroup buffers made before the switch. In tg.left's case,
// worker 0's lane 0 stores it, then the producer warps arrive at barrier 15 ("full") and wait
// at barrier 14 ("consumed"); in tg.right's case the consumer warps wait at 15, load it and
// arrive at 14. Both count (left workers + right workers) x subgroup size threads.

// CHECK:       %[[SG:.*]] = gpu.subgroup_size : index
// CHECK-NEXT:  %[[NL:.*]] = arith.subi %tg_left_hi, %tg_left_lo : index
// CHECK-NEXT:  %[[NR:.*]] = arith.subi %tg_right_hi, %tg_right_lo : index
// CHECK-NEXT:  %[[N:.*]] = arith.addi %[[NL]], %[[NR]] : index
// CHECK-NEXT:  %[[T:.*]] = arith.muli %[[N]], %[[SG]] : index
// CHECK-NEXT:  %handoff0_threads = arith.index_cast %[[T]] : index to i32
// CHECK-NEXT:  %handoff0_full = arith.constant 15 : i32
// CHECK-NEXT:  %handoff0_consumed = arith.constant 14 : i32
// CHECK-NEXT:  %[[V:.*]] = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:  %[[S:.*]] = memref.alloc() : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:  scf.index_switch %cluster
// CHECK-NEXT:  case 0 {
// CHECK:         %s = vector.reduction <add>, %x : vector<4xf32> into f32
// CHECK:         %[[L:.*]] = gpu.lane_id
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      vector.store %y, %[[V]][%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:      memref.store %s, %[[S]][%{{.*}}] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.barrier.arrive id = %handoff0_full number_of_threads = %handoff0_threads
// CHECK-NEXT:    nvvm.barrier id = %handoff0_consumed number_of_threads = %handoff0_threads
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  case 1 {
// CHECK-NEXT:    nvvm.barrier id = %handoff0_full number_of_threads = %handoff0_threads
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %v = vector.load %[[V]][%[[Z]]] : memref<4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %sum = memref.load %[[S]][%[[Z2]]] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    nvvm.barrier.arrive id = %handoff0_consumed number_of_threads = %handoff0_threads
// CHECK:         vector.store %w, %out[%at] : memref<16xf32>, vector<4xf32>
func.func @handoff(%in: memref<4xf32>, %out: memref<16xf32>, %one: index) {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute[%wg: index] {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %h = arith.constant 1 : index
      pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
           %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
        %p = pcf.shared_executor.run_cluster %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>
            -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(vector<4xf32>, f32)> {
          %c0 = arith.constant 0 : index
          %x = vector.load %in[%c0] : memref<4xf32>, vector<4xf32>
          %two = arith.constant dense<2.0> : vector<4xf32>
          %y = arith.mulf %x, %two : vector<4xf32>
          %s = vector.reduction <add>, %x : vector<4xf32> into f32
          pcf.yield %y, %s : vector<4xf32>, f32
        }
        pcf.shared_executor.run_cluster %right ins(%p : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(vector<4xf32>, f32)>)
            : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
        ^bb0(%v: vector<4xf32>, %sum: f32):
          %sg = gpu.subgroup_id : index
          %c4 = arith.constant 4 : index
          %at = arith.muli %sg, %c4 : index
          %b = vector.broadcast %sum : f32 to vector<4xf32>
          %w = arith.addf %v, %b : vector<4xf32>
          vector.store %w, %out[%at] : memref<16xf32>, vector<4xf32>
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
