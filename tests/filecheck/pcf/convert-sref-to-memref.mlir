// RUN: layoutkit opt --pcf-convert-sref-to-memref %s | filecheck %s
// RUN: not layoutkit opt --pcf-convert-sref-to-memref %S/inputs/tensor-init.mlir 2>&1 | filecheck %s --check-prefix=TENSOR
// Tied srefs become their init memrefs: the loop loses its srefs and results, the uses of its
// result use the init, slices become vector transfers at the slice offsets.

// CHECK-LABEL: func.func @copy(%src: memref<8x8xf32>, %dst: memref<8x8xf32>) -> memref<8x8xf32>
// CHECK:         pcf.loop scope(#iree_codegen.workgroup_scope) count(%c2, %c2)
// CHECK-NEXT:      execute[%i: index, %j: index] {
// CHECK:           %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[T:.*]] = vector.transfer_read %src[%i, %j], %[[PAD]] : memref<8x8xf32>, vector<4x4xf32>
// CHECK:           %[[C1:.*]] = arith.constant 1 : index
// CHECK:           vector.transfer_write %[[T]], %dst[%[[C1]], %j] : vector<4x4xf32>, memref<8x8xf32>
// CHECK-NOT:       pcf.read_slice
// CHECK-NOT:       pcf.write_slice
// CHECK:           pcf.return
// CHECK:         func.return %dst : memref<8x8xf32>

// TENSOR: error: pcf-convert-sref-to-memref: pcf.loop: init 0: only memref inits are converted yet, got tensor<4xf32>
func.func @copy(%src: memref<8x8xf32>, %dst: memref<8x8xf32>) -> memref<8x8xf32> {
  %c2 = arith.constant 2 : index
  %r:2 = pcf.loop scope(#iree_codegen.workgroup_scope) count(%c2, %c2)
    execute(%s = %src, %d = %dst)[%i: index, %j: index]
         : (!pcf.sref<8x8xf32, #iree_codegen.workgroup_scope>, !pcf.sref<8x8xf32, #iree_codegen.workgroup_scope>)
        -> (memref<8x8xf32>, memref<8x8xf32>) {
    %t = pcf.read_slice %s[%i, %j] [4, 4] [1, 1] : !pcf.sref<8x8xf32, #iree_codegen.workgroup_scope> to vector<4x4xf32>
    pcf.write_slice %t into %d[1, %j] [4, 4] [1, 1] : vector<4x4xf32> into !pcf.sref<8x8xf32, #iree_codegen.workgroup_scope>
    pcf.return
  }
  return %r#1 : memref<8x8xf32>
}

// A subgroup-scope alloc lives in workgroup memory.
// CHECK-LABEL: func.func @scratch(%n: index)
// CHECK:         %a = memref.alloc(%n) : memref<?x8xf32, #gpu.address_space<workgroup>>
// CHECK:         vector.transfer_write %v, %a[%sg, %{{.*}}] : vector<1x8xf32>, memref<?x8xf32, #gpu.address_space<workgroup>>
func.func @scratch(%n: index) {
  pcf.generic scope(#iree_gpu.subgroup_scope) execute[%sg: index, %nsg: index] {
    %a = pcf.alloc(%n) : !pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>
    %v = arith.constant dense<1.0> : vector<1x8xf32>
    pcf.write_slice %v into %a[%sg, 0] [1, 8] [1, 1] : vector<1x8xf32> into !pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>
    pcf.return
  }
  return
}
