data "kv_lookup" "greeting" {
  key = "greeting"
}

output "greeting" {
  value = data.kv_lookup.greeting.value
}
