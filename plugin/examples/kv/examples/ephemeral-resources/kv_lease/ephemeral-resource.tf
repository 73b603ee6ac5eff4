# Terraform 1.10 and later: the value is never written to a plan or a state.
ephemeral "kv_lease" "password" {
  key = "db-password"
}

# Terraform 1.11 and later: handed on through a write-only attribute.
resource "kv_entry" "copy" {
  key               = "db-password-copy"
  secret_wo         = ephemeral.kv_lease.password.value
  secret_wo_version = 1
}
