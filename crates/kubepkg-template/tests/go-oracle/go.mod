module kubepkg.dev/template-go-oracle

go 1.26
