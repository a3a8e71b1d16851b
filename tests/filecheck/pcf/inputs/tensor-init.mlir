// A tensor init: pcf-convert-sref-to-memref needs memrefs (bufferize first).
func.func @t(%init: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%n)
    execute(%ref = %init)[%i: index] : (!pcf.sref<4xf32, #iree_codegen.workgroup_scope>) -> (tensor<4xf32>) {
    pcf.return
  }
  return %r : tensor<4xf32>
}
