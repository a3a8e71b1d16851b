// RUN: layoutkit opt --pcf-resolve-tokens %s | filecheck %s
// sync(S) on an sref moves onto its op as `sync true`; plain srefs and ops stay as they are.

// CHECK-LABEL: func.func @f
// CHECK:         %r = pcf.loop sync true scope(#iree_codegen.workgroup_scope) count(%n)
// CHECK-NEXT:      execute(%ref = %buf)[%i: index]
// CHECK-NEXT:           : (!pcf.sref<?xf32, #iree_codegen.workgroup_scope>)
// CHECK:           pcf.generic scope(#iree_gpu.subgroup_scope)
// CHECK:           pcf.write_slice %v into %ref[%i] [1] [1] : vector<1xf32> into !pcf.sref<?xf32, #iree_codegen.workgroup_scope>
func.func @f(%buf: memref<?xf32>, %n: index) -> memref<?xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%n) execute(%ref = %buf)[%i: index]
       : (!pcf.sref<?xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?xf32>) {
    pcf.generic scope(#iree_gpu.subgroup_scope) execute[%sg: index, %nsg: index] {
      pcf.return
    }
    %v = arith.constant dense<1.0> : vector<1xf32>
    pcf.write_slice %v into %ref[%i] [1] [1] : vector<1xf32> into !pcf.sref<?xf32, sync(#iree_codegen.workgroup_scope)>
    pcf.return
  }
  return %r : memref<?xf32>
}
