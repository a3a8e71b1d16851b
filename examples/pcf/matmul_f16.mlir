// C += A @ B on dynamic sizes, f16 inputs accumulated in f32: the input of seed 002's reworked
// GPU pipeline (README "## PCF", "The reworked matmul pipeline").
//   layoutkit compile examples/pcf/matmul_f16.mlir --pipeline pcf-matmul [--print-ir-after-all] -o out.mlir
//   layoutkit simulate out.mlir --function matmul --arg a=a.npy --arg b=b.npy --arg c=c.npy --out res
func.func @matmul(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
