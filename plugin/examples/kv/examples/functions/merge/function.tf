# Terraform 1.8 and later.
output "tags" {
  # { team = "web", env = "prod" }
  value = provider::kv::merge({ team = "ops", env = "prod" }, { team = "web" })
}
