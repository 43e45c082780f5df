module github.com/recallgate/recallgate

go 1.26.8

require github.com/BurntSushi/toml v1.6.0

require (
	github.com/google/go-github/v62 v62.0.0
	github.com/kljensen/snowball v0.10.0
	github.com/sethvargo/go-githubactions v1.3.0
	gitlab.com/gitlab-org/api/client-go/v2 v2.64.0
	go.mau.fi/util v0.11.1
	golang.org/x/text v0.44.0
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/oauth2 v0.36.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
