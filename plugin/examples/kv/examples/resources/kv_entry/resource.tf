resource "kv_entry" "greeting" {
  key   = "greeting"
  value = "hello"
  ttl   = 600

  tags = {
    team = "web"
  }

  rule {
    name     = "cache"
    priority = 10
  }

  acl {
    principal = "alice"
    level     = "admin"
  }
}
