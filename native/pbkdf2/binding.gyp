{
  "targets": [
    {
      "target_name": "pbkdf2",
      "sources": ["pbkdf2.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-function"]
    }
  ]
}
