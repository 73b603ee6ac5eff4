# Terraform 1.8 and later.
output "greeting_id" {
  value = provider::kv::id("greeting") # "kv-greeting"
}
