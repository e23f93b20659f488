# The starter policy's main protections in Rego: no recursive deletion of the root or the home
# directory, and no tool touching a secret file. The event is `input`; every message in `deny`
# refuses the call.
package hooks.starter

# rm with -r and -f (in any order, joined or not) on /, /*, ~ or $HOME.
rm_root_or_home := `(^|[;&|]\s*|\s)rm\s+(-[a-zA-Z]*r[a-zA-Z]*f[a-zA-Z]*|-[a-zA-Z]*f[a-zA-Z]*r[a-zA-Z]*|-r\s+-f|-f\s+-r)\s+(/|/\*|~/?|\$HOME/?)(\s|$)`

secret_file := `(^|/)(\.env(\.local|\.production)?|id_rsa|id_ed25519|[^/]*\.pem)$`

secret_in_command := `(^|\s)(\S*/)?(\.env(\.local|\.production)?|id_rsa|id_ed25519)(\s|$)`

deny contains msg if {
	input.tool_name == "Bash"
	regex.match(rm_root_or_home, input.tool_input.command)
	msg := "recursive deletion of the root or the home directory: delete what you need by name, inside the project"
}

deny contains msg if {
	input.tool_name in {"Read", "Write", "Edit"}
	regex.match(secret_file, input.tool_input.file_path)
	msg := "a secret file (.env, private keys): ask the user for the value you need"
}

deny contains msg if {
	input.tool_name == "Bash"
	regex.match(secret_in_command, input.tool_input.command)
	msg := "a shell command naming a secret file: ask the user for the value you need"
}
