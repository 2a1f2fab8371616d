// Eigen's Tensor module, for the code that computes (kernels and the
// executor's device). Appended to pch_base.h; found through the -isystem
// directory of @eigen given to the PCH's compile in BUILD.
#include <unsupported/Eigen/CXX11/Tensor>
