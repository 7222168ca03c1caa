// The .rsp parser on small inline texts shaped like the real files.
#include <gtest/gtest.h>

#include "rsp_parser.hpp"

namespace cryptoaccel::kat {
namespace {

TEST(RspParser, SectionsFieldsAndBlankLineSeparatedRecords) {
  const auto records = parse_rsp(
      "# CAVS 11.1\n"
      "# AESVS MMT test data for CBC\n"
      "\n"
      "[ENCRYPT]\n"
      "\n"
      "COUNT = 0\n"
      "KEY = 1f8e4973953f3fb0bd6b16662e9a3c17\n"
      "PLAINTEXT = 45cf\n"
      "\n"
      "COUNT = 1\n"
      "KEY = 0700\n"
      "\n"
      "[DECRYPT]\n"
      "COUNT = 0\n"
      "CIPHERTEXT = 0f61\n");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].section, "ENCRYPT");
  EXPECT_EQ(records[0].line, 6u);
  ASSERT_EQ(records[0].fields.size(), 3u);
  EXPECT_EQ(records[0].fields[1].name, "KEY");
  EXPECT_EQ(records[0].fields[1].value, "1f8e4973953f3fb0bd6b16662e9a3c17");
  EXPECT_EQ(records[0].fields[1].line, 7u);
  EXPECT_EQ(records[1].section, "ENCRYPT");
  // A section line ends the record before it even without a blank line.
  EXPECT_EQ(records[2].section, "DECRYPT");
  ASSERT_NE(records[2].value({"ciphertext"}), nullptr);
  EXPECT_EQ(*records[2].value({"ciphertext"}), "0f61");
}

TEST(RspParser, BracketParametersPersistUntilChanged) {
  const auto records = parse_rsp(
      "[Keylen = 128]\n"
      "[IVlen = 96]\n"
      "\n"
      "Count = 0\n"
      "\n"
      "[IVlen = 8]\n"
      "\n"
      "Count = 1\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].section, "");
  ASSERT_NE(records[0].param("IVlen"), nullptr);
  EXPECT_EQ(*records[0].param("IVlen"), "96");
  ASSERT_NE(records[1].param("ivlen"), nullptr);
  EXPECT_EQ(*records[1].param("ivlen"), "8");
  ASSERT_NE(records[1].param("Keylen"), nullptr);
  EXPECT_EQ(*records[1].param("Keylen"), "128");
  EXPECT_EQ(records[1].params.size(), 2u);
}

TEST(RspParser, BareWordsEmptyValuesCrlfAndCommentsInsideRecords) {
  const auto records = parse_rsp(
      "Count = 1\r\n"
      "CT = \r\n"
      "Tag = a2be\r\n"
      "FAIL\r\n"
      "\r\n"
      "Len = 224\n"
      "# \"Jefe\"\n"
      "Key = 4a656665\n"
      "KEY= 808182\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records[0].has_flag("FAIL"));
  EXPECT_FALSE(records[0].has_flag("PT"));
  ASSERT_NE(records[0].field("CT"), nullptr);
  EXPECT_EQ(records[0].field("CT")->value, "");
  EXPECT_EQ(records[0].field("Tag")->value, "a2be");
  // The comment does not split the record; the first "Key" wins a lookup.
  ASSERT_EQ(records[1].fields.size(), 3u);
  EXPECT_EQ(records[1].field("key")->value, "4a656665");
  EXPECT_EQ(records[1].fields[2].name, "KEY");
  EXPECT_EQ(records[1].fields[2].value, "808182");
  EXPECT_EQ(records[1].value({"Nonce", "Len"}), &records[1].fields[0].value);
  EXPECT_EQ(records[1].value({"Nonce"}), nullptr);
}

TEST(RspParser, EmptyAndCommentOnlyTextsHaveNoRecords) {
  EXPECT_TRUE(parse_rsp("").empty());
  EXPECT_TRUE(parse_rsp("# only a comment\n\n[ENCRYPT]\n\n").empty());
}

TEST(RspBytes, HexAndQuotedAscii) {
  EXPECT_EQ(rsp_bytes("00ffA5"), (ByteVector{0x00, 0xff, 0xa5}));
  EXPECT_EQ(rsp_bytes(""), ByteVector{});
  EXPECT_EQ(rsp_bytes("\"1\""), (ByteVector{'1'}));
  EXPECT_EQ(rsp_bytes("\"\""), ByteVector{});
  EXPECT_EQ(rsp_bytes("\"'99: a\""), (ByteVector{'\'', '9', '9', ':', ' ', 'a'}));
  EXPECT_FALSE(rsp_bytes("abc").has_value());
  EXPECT_FALSE(rsp_bytes("zz").has_value());
  EXPECT_EQ(to_hex(ByteVector{0x0a, 0xbc}), "0abc");
}

}  // namespace
}  // namespace cryptoaccel::kat
