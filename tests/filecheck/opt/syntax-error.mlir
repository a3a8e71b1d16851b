// An error in the input is one line FILE:LINE:COL: error: ... (<stdin> for '-'), exit status 2.
// RUN: not layoutkit opt %s --cse 2>&1 | filecheck %s
// RUN: not layoutkit opt - < %s 2>&1 | filecheck %s --check-prefix=STDIN

module {
  func.func @f(%x: i32) -> i32 {
    // CHECK: {{^}}{{.*}}syntax-error.mlir:[[# @LINE + 2]]:24: error: Expected ',' (in '%y = arith.addi %x : i32'){{$}}
    // STDIN: {{^}}<stdin>:[[# @LINE + 1]]:24: error: Expected ','{{.*$}}
    %y = arith.addi %x : i32
    func.return %y : i32
  }
}
// CHECK-NOT: {{.}}
// STDIN-NOT: {{.}}
