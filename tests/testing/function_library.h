// A GraphDef function library for tests and fuzz seeds, as text: functions
// the way TensorFlow 2 writes them (arguments by name, outputs as
// "node:output_arg:index").
//
// scale_add(x, y) = 2 * x + y; is_small(i, acc) = i < 10; step(i, acc) = (i + 1, acc * 2);
// neg(x) = -x; same(x) = x; read_plus_one(v) = v + 1 for a resource v;
// twice(x, y) calls scale_add(scale_add(x, y), y).
//
// kFunctionCallsText calls them, as nodes to add to the library's graph.
//
//   GraphDef g;
//   google::protobuf::TextFormat::ParseFromString(kFunctionLibraryText, &g);

#ifndef MINIGRAPH_TESTS_TESTING_FUNCTION_LIBRARY_H_
#define MINIGRAPH_TESTS_TESTING_FUNCTION_LIBRARY_H_

namespace minigraph {

inline constexpr char kFunctionLibraryText[] = R"pb(
  library {
    function {
      signature {
        name: "scale_add"
        input_arg { name: "x" type: DT_FLOAT }
        input_arg { name: "y" type: DT_FLOAT }
        output_arg { name: "z" type: DT_FLOAT }
      }
      node_def {
        name: "two"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_FLOAT
              tensor_shape {}
              float_val: 2
            }
          }
        }
      }
      node_def {
        name: "mul"
        op: "Mul"
        input: "x"
        input: "two:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "mul:z:0"
        input: "y"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "z" value: "add:z:0" }
    }
    function {
      signature {
        name: "is_small"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "ten"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 10
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "ten:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "b" value: "less:z:0" }
    }
    function {
      signature {
        name: "step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "dbl"
        op: "AddV2"
        input: "acc"
        input: "acc"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "acc_next" value: "dbl:z:0" }
    }
    function {
      signature {
        name: "neg"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "n"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "n:y:0" }
    }
    function {
      signature {
        name: "same"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      ret { key: "y" value: "x" }
    }
    function {
      signature {
        name: "read_plus_one"
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "y" type: DT_FLOAT }
        is_stateful: true
      }
      node_def {
        name: "read"
        op: "ReadVariableOp"
        input: "v"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_FLOAT
              tensor_shape {}
              float_val: 1
            }
          }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "read:value:0"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "twice"
        input_arg { name: "x" type: DT_FLOAT }
        input_arg { name: "y" type: DT_FLOAT }
        output_arg { name: "z" type: DT_FLOAT }
      }
      node_def {
        name: "first"
        op: "PartitionedCall"
        input: "x"
        input: "y"
        attr {
          key: "Tin"
          value { list { type: [ DT_FLOAT, DT_FLOAT ] } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "f"
          value { func { name: "scale_add" } }
        }
      }
      node_def {
        name: "second"
        op: "PartitionedCall"
        input: "first:output:0"
        input: "y"
        attr {
          key: "Tin"
          value { list { type: [ DT_FLOAT, DT_FLOAT ] } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "f"
          value { func { name: "scale_add" } }
        }
      }
      ret { key: "z" value: "second:output:0" }
    }
  }
)pb";

// Nodes calling kFunctionLibraryText's functions, given the float
// placeholders x and y and the bool placeholder p:
//   call = scale_add(x, y) (StatefulPartitionedCall);
//   nested = twice(x, y) (PartitionedCall, a call inside a call);
//   if = If(p, x): same(x) or neg(x);
//   loop = StatelessWhile(is_small, step) from (i0 = 3, x);
//   v, a resource variable; init assigns it x; read_call = read_plus_one(v).
inline constexpr char kFunctionCallsText[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
  node {
    name: "call"
    op: "StatefulPartitionedCall"
    input: [ "x", "y" ]
    attr { key: "Tin" value { list { type: [ DT_FLOAT, DT_FLOAT ] } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "scale_add" } } }
  }
  node {
    name: "nested"
    op: "PartitionedCall"
    input: [ "x", "y" ]
    attr { key: "Tin" value { list { type: [ DT_FLOAT, DT_FLOAT ] } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "twice" } } }
  }
  node {
    name: "if"
    op: "If"
    input: [ "p", "x" ]
    attr { key: "Tcond" value { type: DT_BOOL } }
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "then_branch" value { func { name: "same" } } }
    attr { key: "else_branch" value { func { name: "neg" } } }
  }
  node {
    name: "i0"
    op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } }
  }
  node {
    name: "loop"
    op: "StatelessWhile"
    input: [ "i0", "x" ]
    attr { key: "T" value { list { type: [ DT_INT32, DT_FLOAT ] } } }
    attr { key: "cond" value { func { name: "is_small" } } }
    attr { key: "body" value { func { name: "step" } } }
  }
  node {
    name: "v"
    op: "VarHandleOp"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape {} } }
    attr { key: "shared_name" value { s: "v" } }
  }
  node {
    name: "init"
    op: "AssignVariableOp"
    input: [ "v", "x" ]
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "read_call"
    op: "StatefulPartitionedCall"
    input: "v"
    attr { key: "Tin" value { list { type: DT_RESOURCE } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "read_plus_one" } } }
  }
)pb";

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_FUNCTION_LIBRARY_H_
