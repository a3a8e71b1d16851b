// RUN: layoutkit opt --tile-to-workgroups %s | filecheck %s
// RUN: layoutkit opt --pass-pipeline='builtin.module(tile-to-workgroups,distribute-to-threads)' %s | filecheck %s --check-prefix=GLOBAL
// No tile-sizes: the cost model (layoutkit/passes/tile_config.py) tiles the seed's matmul
// as one 32x16 block (K whole: 4.5 KB of promoted tiles); the fill, all parallel, stays
// untiled for distribute-to-threads to run over the global id.

// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:    %[[Z:.*]] = arith.constant
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : f32) outs(%c : memref<32x16xf32>)
// CHECK-NEXT:    scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (32, 16) step (32, 16) {
// CHECK:           linalg.matmul
// CHECK:         } {mapping = [#gpu.block<y>, #gpu.block<x>]}

// 512 elements, 128 threads a block: global id = block offset + thread id, bounds check.
// GLOBAL-LABEL: func.func @matmul
// GLOBAL:         scf.forall (%[[B:.*]]) = (0) to (512) step (128) {
// GLOBAL-NEXT:      scf.forall (%[[T:.*]]) in (128) {
// GLOBAL-NEXT:        %[[G:.*]] = arith.addi %[[B]], %[[T]] : index
// GLOBAL-NEXT:        %[[N:.*]] = arith.constant 512 : index
// GLOBAL-NEXT:        %[[IN:.*]] = arith.cmpi ult, %[[G]], %[[N]] : index
// GLOBAL-NEXT:        scf.if %[[IN]] {
// GLOBAL-NEXT:          %[[J:.*]] = affine.apply affine_map<(d0) -> ((d0 mod 16))>(%[[G]])
// GLOBAL-NEXT:          %[[I:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 16))>(%[[G]])
// GLOBAL-NEXT:          memref.store %{{.*}}, %c[%[[I]], %[[J]]] : memref<32x16xf32>
// GLOBAL-NEXT:        }
// GLOBAL-NEXT:      } {mapping = [#gpu.thread<x>]}
// GLOBAL-NEXT:    } {mapping = [#gpu.block<x>]}
func.func @matmul(%a: memref<32x24xf32>, %b: memref<24x16xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.matmul ins(%a, %b : memref<32x24xf32>, memref<24x16xf32>) outs(%c : memref<32x16xf32>)
  return
}
