"""Declares Abseil targets under their upstream names, all backed by :system_absl."""

def absl_libraries(names):
    for name in names:
        native.cc_library(
            name = name,
            deps = ["//:system_absl"],
            visibility = ["//visibility:public"],
        )
