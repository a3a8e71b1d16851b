// RUN: layoutkit opt --pass-pipeline='builtin.module(tile-to-workgroups{tile-sizes=32,32,32},promote-to-workgroup-memory{workgroup-size=8,8})' %s | filecheck %s
// RUN: layoutkit opt --pass-pipeline='builtin.module(tile-to-workgroups{tile-sizes=32,32,32},promote-to-workgroup-memory{workgroup-size=8,8},distribute-to-threads{workgroup-size=8,8})' %s | filecheck %s --check-prefix=COPY
// 32x32x32 tiles of a 64^3 matmul, 8x8 threads: A's rows are padded to 36 elements (a warp
// reads A[ty, k] on 4 rows: banks 0, 4, 8, 12 instead of 4 times bank 0; 36 keeps 16-byte
// copies), B's rows need none. Barriers before and after the copies, once per K step.

// CHECK-LABEL: func.func @matmul
// CHECK:       scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (64, 64) step (32, 32) {
// CHECK-NEXT:    %[[SA:.*]] = memref.alloc() : memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[SB:.*]] = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[A:.*]] = memref.subview %a[%[[I]], %[[K]]] [32, 32] [1, 1]
// CHECK-NEXT:      %[[B:.*]] = memref.subview %b[%[[K]], %[[J]]] [32, 32] [1, 1]
// CHECK-NEXT:      %[[C:.*]] = memref.subview %c[%[[I]], %[[J]]] [32, 32] [1, 1]
// CHECK-NEXT:      %[[TA:.*]] = memref.subview %[[SA]][0, 0] [32, 32] [1, 1] : memref<32x36xf32, #gpu.address_space<workgroup>> to memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      linalg.copy ins(%[[A]] : {{.*}}) outs(%[[TA]] : memref<32x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>)
// CHECK-NEXT:      %[[TB:.*]] = memref.subview %[[SB]][0, 0] [32, 32] [1, 1]
// CHECK-NEXT:      linalg.copy ins(%[[B]] : {{.*}}) outs(%[[TB]] : {{.*}})
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      linalg.matmul ins(%[[TA]], %[[TB]] : {{.*}}) outs(%[[C]] : {{.*}})

// The copies: all 64 threads, linear id ty * 8 + tx, 16-byte vectors (32x32 / 4 = 256
// vectors, 4 per thread), consecutive threads on consecutive vectors of a row.
// COPY-LABEL: func.func @matmul
// COPY:         gpu.barrier
// COPY-NEXT:    scf.forall (%[[TY:.*]], %[[TX:.*]]) in (8, 8) {
// COPY-NEXT:      %[[L:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 8) + d1))>(%[[TY]], %[[TX]])
// COPY:           scf.for %[[E:.*]] = %[[L]] to %{{.*}} step %{{.*}} {
// COPY-NEXT:        %[[R:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 8))>(%[[E]])
// COPY-NEXT:        %[[Q:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 8) * 4))>(%[[E]])
// COPY:             %[[V:.*]] = vector.load %a[%{{.*}}, %{{.*}}] : memref<64x64xf32>, vector<4xf32>
// COPY-NEXT:        vector.store %[[V]], %{{.*}}[%[[R]], %[[Q]]] : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// COPY:         } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// COPY:         gpu.barrier
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
