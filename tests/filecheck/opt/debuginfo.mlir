// Locations are kept and printed with --mlir-print-debuginfo; --strip-debuginfo (a pass, so
// it can sit in a pipeline) makes them all unknown. --mlir-print-op-generic prints MLIR's
// generic form.
// RUN: layoutkit opt %s --mlir-print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: layoutkit opt %s --strip-debuginfo --mlir-print-debuginfo | filecheck %s --check-prefix=STRIPPED
// RUN: layoutkit opt %s --pass-pipeline='builtin.module(strip-debuginfo)' --mlir-print-debuginfo | filecheck %s --check-prefix=STRIPPED
// RUN: layoutkit opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

module {
  func.func @f(%x: i32) -> i32 {
    %c = arith.constant 7 : i32 loc("kernel.py":12:8)
    %y = arith.addi %x, %c : i32 loc("kernel.py":13:4)
    func.return %y : i32
  }
}

// LOC:      %c = arith.constant 7 : i32 loc("kernel.py":12:8)
// LOC-NEXT: %y = arith.addi %x, %c : i32 loc("kernel.py":13:4)

// STRIPPED:     %c = arith.constant 7 : i32 loc(unknown)
// STRIPPED-NOT: kernel.py

// GENERIC:      "func.func"() <{sym_name = "f", function_type = (i32) -> i32}> ({
// GENERIC-NEXT: ^bb0(%x: i32):
// GENERIC-NEXT:   %c = "arith.constant"() <{value = 7 : i32}> : () -> i32
