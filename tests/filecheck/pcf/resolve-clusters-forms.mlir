// RUN: layoutkit opt --pcf-resolve-clusters %s | filecheck %s
// Executor forms beyond ids and tied refs. A read-only operand (%in <- %x) becomes a tied ref
// whose result is unused; the initialize region is inlined before the cluster index (it sees no
// ids, so every worker computes the same values). A rank-2 grid (as IREE gives several
// subgroup ids: id 1 is 0 of 1) finds the worker's box from both ids; run_thread gets one
// tile-relative id per dimension.

// CHECK-LABEL: func.func @readonly_init(%x: memref<8xf32>, %buf: memref<8xf32>, %h: index)
// CHECK:         %{{.*}} = pcf.generic sync true scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:      execute(%in = %x)[%worker: index, %workers: index]
// CHECK-NEXT:           : (!pcf.sref<8xf32, #iree_gpu.subgroup_scope>)
// CHECK-NEXT:          -> (memref<8xf32>) {
// CHECK-NEXT:      %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:      %tg_left_lo = affine.apply
// CHECK:           case 0 {
// CHECK-NEXT:        %t = arith.subi %worker, %tg_left_lo : index
// CHECK-NEXT:        %v = pcf.read_slice %in[%t] [1] [1] : !pcf.sref<8xf32, #iree_gpu.subgroup_scope> to vector<1xf32>
// CHECK-NEXT:        %s = vector.extract %v[0] : f32 from vector<1xf32>
// CHECK-NEXT:        %p = arith.mulf %s, %two : f32
// CHECK-NEXT:        memref.store %p, %buf[%t] : memref<8xf32>
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      case 1 {
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NOT:     initialize
func.func @readonly_init(%x: memref<8xf32>, %buf: memref<8xf32>, %h: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope) initialize {
    %two = arith.constant 2.0 : f32
    pcf.yield %two : f32
  } -> (%scale: f32)
    execute(%in <- %x)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
         : (!pcf.sref<8xf32, #iree_gpu.subgroup_scope>) -> () reads(memref<8xf32>) {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
         %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
      pcf.shared_executor.run_thread %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> {
      ^bb0(%t: index):
        %v = pcf.read_slice %in[%t] [1] [1] : !pcf.sref<8xf32, #iree_gpu.subgroup_scope> to vector<1xf32>
        %s = vector.extract %v[0] : f32 from vector<1xf32>
        %p = arith.mulf %s, %scale : f32
        memref.store %p, %buf[%t] : memref<8xf32>
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  return
}

// CHECK-LABEL: func.func @boxes(%buf: memref<8x2xindex>, %h: index, %v: index)
// CHECK:         pcf.generic sync true scope(#iree_gpu.subgroup_scope)
// CHECK-NEXT:      execute[%worker: index, %workers: index] {
// CHECK-NEXT:      %worker1 = arith.constant 0 : index
// CHECK-NEXT:      %workers1 = arith.constant 1 : index
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %tg_a_lo0 = affine.apply affine_map<(d0, d1)[s0, s1] -> (0)>(%h, %v)[%workers, %workers1]
// CHECK-NEXT:      %tg_a_hi0 = affine.apply affine_map<(d0, d1)[s0, s1] -> (d0)>(%h, %v)[%workers, %workers1]
// CHECK-NEXT:      %tg_a_lo1 = affine.apply affine_map<(d0, d1)[s0, s1] -> (0)>(%h, %v)[%workers, %workers1]
// CHECK-NEXT:      %tg_a_hi1 = affine.apply affine_map<(d0, d1)[s0, s1] -> (d1)>(%h, %v)[%workers, %workers1]
// CHECK:           %tg_b_hi1 = affine.apply affine_map<(d0, d1)[s0, s1] -> (s1)>(%h, %v)[%workers, %workers1]
// CHECK-NEXT:      %[[A0:.*]] = arith.cmpi ule, %tg_b_lo0, %worker : index
// CHECK-NEXT:      %[[B0:.*]] = arith.cmpi ult, %worker, %tg_b_hi0 : index
// CHECK-NEXT:      %[[IN0:.*]] = arith.andi %[[A0]], %[[B0]] : i1
// CHECK-NEXT:      %[[A1:.*]] = arith.cmpi ule, %tg_b_lo1, %worker1 : index
// CHECK-NEXT:      %[[B1:.*]] = arith.cmpi ult, %worker1, %tg_b_hi1 : index
// CHECK-NEXT:      %[[IN1:.*]] = arith.andi %[[A1]], %[[B1]] : i1
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %{{.*}} = arith.select %[[IN]], %[[ONE]], %[[ZERO]] : index
// CHECK:           case 0 {
// CHECK-NEXT:        %i = arith.subi %worker, %tg_a_lo0 : index
// CHECK-NEXT:        %j = arith.subi %worker1, %tg_a_lo1 : index
// CHECK-NEXT:        memref.store %j, %buf[%i, %j] : memref<8x2xindex>
func.func @boxes(%buf: memref<8x2xindex>, %h: index, %v: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h, %v) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%a: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, 0, d1)>, tg.a>,
         %b: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, d1, s1)>, tg.b>,
         %c: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (d0, s0, 0, s1)>, tg.c>):
      pcf.shared_executor.run_thread %a : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, 0, d1)>, tg.a> {
      ^bb0(%i: index, %j: index):
        memref.store %j, %buf[%i, %j] : memref<8x2xindex>
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  return
}
