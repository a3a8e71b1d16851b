// --list-passes lists every pass with what it does and its options, then the pipelines.
// RUN: layoutkit opt --list-passes | filecheck %s

// CHECK:      Passes
// CHECK:      --canonicalize
// CHECK-NEXT: --cse  {{ *}}Merge ops that compute the same value
// CHECK-NEXT: --dce
// CHECK-NEXT: --strip-debuginfo
// CHECK:      Pipelines
// CHECK-NEXT: --cleanup {{ *}}canonicalize,cse:
