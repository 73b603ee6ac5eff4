# The shape of the provider's first release. To move to kv_entry, rename the block and
# add a moved block (Terraform 1.8 and later):
#
#   moved {
#     from = kv_legacy_entry.greeting
#     to   = kv_entry.greeting
#   }
resource "kv_legacy_entry" "greeting" {
  key  = "greeting"
  data = "hello"
}
