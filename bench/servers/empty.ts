// Intentionally empty: `deno run` of this file is the reference for the `--health` figure.
