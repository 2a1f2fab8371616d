#include "core/types.h"

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

TEST(TypesTest, EnumValuesAreTensorFlows) {
  EXPECT_EQ(DT_FLOAT, 1);
  EXPECT_EQ(DT_DOUBLE, 2);
  EXPECT_EQ(DT_INT32, 3);
  EXPECT_EQ(DT_UINT8, 4);
  EXPECT_EQ(DT_INT16, 5);
  EXPECT_EQ(DT_INT8, 6);
  EXPECT_EQ(DT_STRING, 7);
  EXPECT_EQ(DT_INT64, 9);
  EXPECT_EQ(DT_BOOL, 10);
  EXPECT_EQ(DT_BFLOAT16, 14);
  EXPECT_EQ(DT_HALF, 19);
  EXPECT_EQ(DT_RESOURCE, 20);
  EXPECT_EQ(DT_VARIANT, 21);
  EXPECT_EQ(DT_FLOAT_REF, 101);
}

TEST(TypesTest, NamesAndParsing) {
  EXPECT_EQ(DataTypeName(DT_FLOAT), "DT_FLOAT");
  EXPECT_EQ(DataTypeString(DT_INT64), "int64");
  EXPECT_EQ(DataTypeString(DT_FLOAT_REF), "float_ref");
  EXPECT_EQ(DataTypeName(static_cast<DataType>(77)), "DT_77");
  DataType dt;
  ASSERT_TRUE(DataTypeFromString("bfloat16", &dt));
  EXPECT_EQ(dt, DT_BFLOAT16);
  ASSERT_TRUE(DataTypeFromString("DT_STRING", &dt));
  EXPECT_EQ(dt, DT_STRING);
  EXPECT_FALSE(DataTypeFromString("floaty", &dt));
  EXPECT_FALSE(DataTypeFromString("invalid", &dt));
}

TEST(TypesTest, SizesAndTraits) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4u);
  EXPECT_EQ(DataTypeSize(DT_HALF), 2u);
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), 2u);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16u);
  EXPECT_EQ(DataTypeSize(DT_BOOL), 1u);
  EXPECT_EQ(DataTypeSize(DT_INVALID), 0u);
  EXPECT_EQ(DataTypeSize(DT_QINT8), 0u);
  EXPECT_TRUE(DataTypeCanUseMemcpy(DT_BFLOAT16));
  EXPECT_FALSE(DataTypeCanUseMemcpy(DT_STRING));
  EXPECT_FALSE(DataTypeCanUseMemcpy(DT_RESOURCE));
  EXPECT_TRUE(IsRefType(DT_INT32_REF));
  EXPECT_EQ(BaseType(DT_INT32_REF), DT_INT32);
  EXPECT_EQ(MakeRefType(DT_INT32), DT_INT32_REF);
  EXPECT_EQ(DataTypeToEnum<half>::value, DT_HALF);
  static_assert(std::is_same_v<EnumToDataType<DT_INT64>::Type, int64_t>);
}

}  // namespace
}  // namespace minigraph
