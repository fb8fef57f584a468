{
  "targets": [
    {
      "target_name": "argon2",
      "sources": ["argon2.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-function"],
      "libraries": ["-largon2"]
    }
  ]
}
