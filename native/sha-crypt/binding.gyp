{
  "targets": [
    {
      "target_name": "sha_crypt",
      "sources": ["sha-crypt.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-function"]
    }
  ]
}
