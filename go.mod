module github.com/recallgate/recallgate

go 1.26.8

require github.com/BurntSushi/toml v1.6.0

require (
	github.com/google/go-github/v62 v62.0.0
	github.com/kljensen/snowball v0.10.0
	github.com/sethvargo/go-githubactions v1.3.0
)

require github.com/google/go-querystring v1.1.0 // indirect
