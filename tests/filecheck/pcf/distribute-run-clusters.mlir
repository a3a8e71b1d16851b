// RUN: layoutkit opt --pcf-distribute-run-clusters %s | filecheck %s
// level=lane (the default): each tensor run_cluster over the threadgroup becomes a run_thread
// whose subgroup %sg owns rows [sg * block, min(sg * block + block, 6)), block = ceil(6 / W)
// for the W = gpu.num_subgroups subgroups, and whose lanes take the 4 columns cyclically. The
// shared payload lives in one pcf.alloc at the executor's scope; the producer is followed by a
// barrier (its buffer is read by the consumer), the consumer is not (nothing reads what it
// writes). Element (r, c) of the read_slice at [1, 0] is element (1 + r, c) of %in.

// CHECK-LABEL: func.func @phases
// CHECK:       %[[BUF:.*]] = pcf.alloc() : !pcf.sref<6x4xf32, #iree_gpu.subgroup_scope>
// CHECK-NEXT:  pcf.shared_executor
// CHECK:       pcf.shared_executor.run_thread %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
// CHECK-NEXT:  ^bb0(%sg: index):
// CHECK-NEXT:    %rows = arith.constant 6 : index
// CHECK-NEXT:    %cols = arith.constant 4 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %subgroups = gpu.num_subgroups : index
// CHECK-NEXT:    %[[UP:.*]] = arith.addi %rows, %subgroups : index
// CHECK-NEXT:    %[[UP1:.*]] = arith.subi %[[UP]], %[[ONE]] : index
// CHECK-NEXT:    %block = arith.divui %[[UP1]], %subgroups : index
// CHECK-NEXT:    %row_lo = arith.muli %sg, %block : index
// CHECK-NEXT:    %[[END:.*]] = arith.addi %row_lo, %block : index
// CHECK-NEXT:    %row_hi = arith.minui %[[END]], %rows : index
// CHECK-NEXT:    pcf.generic scope(#iree_gpu.lane_scope)
// CHECK-NEXT:      execute[%lane: index, %lanes: index] {
// CHECK-NEXT:      scf.for %[[R:.*]] = %row_lo to %row_hi step %[[ONE]] {
// CHECK-NEXT:        scf.for %[[C:.*]] = %lane to %cols step %lanes {
// CHECK-NEXT:          %[[OFF:.*]] = arith.constant 1 : index
// CHECK-NEXT:          %[[R1:.*]] = arith.addi %[[OFF]], %[[R]] : index
// CHECK-NEXT:          %[[V:.*]] = pcf.read_slice %in[%[[R1]], %[[C]]] [1, 1] [1, 1] : !pcf.sref<8x4xf32, #iree_codegen.workgroup_scope> to vector<1x1xf32>
// CHECK-NEXT:          %[[X:.*]] = vector.extract %[[V]][0, 0] : f32 from vector<1x1xf32>
// CHECK-NEXT:          %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %[[M:.*]] = arith.mulf %[[X]], %[[TWO]] : f32
// CHECK-NEXT:          %[[B:.*]] = vector.broadcast %[[M]] : f32 to vector<1x1xf32>
// CHECK-NEXT:          pcf.write_slice %[[B]] into %[[BUF]][%[[R]], %[[C]]] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<6x4xf32, #iree_gpu.subgroup_scope>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      pcf.return
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    pcf.yield
// CHECK-NEXT:  }
// CHECK:       pcf.shared_executor.run_thread %tg
// CHECK:           pcf.read_slice %[[BUF]]
// CHECK-NEXT:      vector.extract
// CHECK-NEXT:      math.exp %{{.*}} : f32
// CHECK:           pcf.write_slice %{{.*}} into %out
// CHECK:         pcf.return
// CHECK-NEXT:  }
// CHECK-NEXT:  pcf.yield
// CHECK-NOT:   pcf.shared_executor.run_cluster
func.func @phases(%one: index, %a: memref<8x4xf32>, %b: memref<6x4xf32>) {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute(%in = %a, %out = %b)[%wg: index]
      : (!pcf.sref<8x4xf32, #iree_codegen.workgroup_scope>, !pcf.sref<6x4xf32, #iree_codegen.workgroup_scope>)
     -> (memref<8x4xf32>, memref<6x4xf32>) {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope) execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %p = pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope>
          -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<6x4xf32>)> {
        %t = pcf.read_slice %in[1, 0] [6, 4] [1, 1] : !pcf.sref<8x4xf32, #iree_codegen.workgroup_scope> to tensor<6x4xf32>
        %two = arith.constant dense<2.0> : tensor<6x4xf32>
        %m = arith.mulf %t, %two : tensor<6x4xf32>
        pcf.yield %m : tensor<6x4xf32>
      }
      pcf.shared_executor.run_cluster %tg ins(%p : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<6x4xf32>)>)
          : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%v: tensor<6x4xf32>):
        %e = math.exp %v : tensor<6x4xf32>
        pcf.write_slice %e into %out[0, 0] [6, 4] [1, 1] : tensor<6x4xf32> into !pcf.sref<6x4xf32, #iree_codegen.workgroup_scope>
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return
}
