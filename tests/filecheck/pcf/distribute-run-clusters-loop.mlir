// RUN: layoutkit opt --pass-pipeline 'pcf-distribute-run-clusters{level=subgroup}' %s | filecheck %s
// level=subgroup: the rows are split over the subgroups, each subgroup walks its columns
// itself (no lane generic). The payload's class {%p0, %cur, %next, %pn} (carried through
// the loop) gets ONE buffer: written before the loop, read and written in place by the step,
// read after the loop; the loop no longer carries it.

// CHECK-LABEL: func.func @loop
// CHECK:       %[[BUF:.*]] = pcf.alloc() : !pcf.sref<5x3xi32, #iree_gpu.subgroup_scope>
// CHECK-NOT:   pcf.alloc
// CHECK:       pcf.shared_executor.run_thread %tg
// CHECK-NOT:     pcf.generic
// CHECK:         %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    scf.for %{{.*}} = %row_lo to %row_hi step
// CHECK-NEXT:      scf.for %{{.*}} = %[[Z]] to %cols step
// CHECK-NEXT:        %[[K:.*]] = arith.constant 7 : i32
// CHECK-NEXT:        %[[B:.*]] = vector.broadcast %[[K]] : i32 to vector<1x1xi32>
// CHECK-NEXT:        pcf.write_slice %[[B]] into %[[BUF]]
// CHECK:         gpu.barrier
// CHECK:       scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:    pcf.shared_executor.run_thread %tg
// CHECK:             pcf.read_slice %[[BUF]]
// CHECK:             arith.muli
// CHECK:             pcf.write_slice %{{.*}} into %[[BUF]]
// CHECK:         gpu.barrier
// CHECK:       pcf.shared_executor.run_thread %tg
// CHECK:             pcf.read_slice %[[BUF]]
// CHECK:             pcf.write_slice %{{.*}} into %out
// CHECK-NOT:   gpu.barrier
// CHECK-NOT:   iter_args
func.func @loop(%one: index, %n: index, %b: memref<5x3xi32>) {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute(%out = %b)[%wg: index]
      : (!pcf.sref<5x3xi32, #iree_codegen.workgroup_scope>) -> (memref<5x3xi32>) {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope) execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %p0 = pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope>
          -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<5x3xi32>)> {
        %k = arith.constant dense<7> : tensor<5x3xi32>
        pcf.yield %k : tensor<5x3xi32>
      }
      %pn = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %p0)
          -> (!pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<5x3xi32>)>) {
        %next = pcf.shared_executor.run_cluster %tg ins(%cur : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<5x3xi32>)>)
            : !pcf.threadgroup<#iree_gpu.subgroup_scope> -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<5x3xi32>)> {
        ^bb0(%v: tensor<5x3xi32>):
          %sq = arith.muli %v, %v : tensor<5x3xi32>
          pcf.yield %sq : tensor<5x3xi32>
        }
        scf.yield %next : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<5x3xi32>)>
      }
      pcf.shared_executor.run_cluster %tg ins(%pn : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<5x3xi32>)>)
          : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%v: tensor<5x3xi32>):
        pcf.write_slice %v into %out[0, 0] [5, 3] [1, 1] : tensor<5x3xi32> into !pcf.sref<5x3xi32, #iree_codegen.workgroup_scope>
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return
}
