// A module that parses but does not verify: the error names the op at its line and column.
// RUN: not layoutkit opt %s 2>&1 | filecheck %s

module {
  func.func @f(%x: i32) -> i32 {
    // CHECK: {{^}}{{.*}}verify-error.mlir:[[# @LINE + 1]]:5: error: func.return: Expected arguments to have the same types as the function output types: expected [i32], got []{{$}}
    func.return
  }
}
// CHECK-NOT: {{.}}
