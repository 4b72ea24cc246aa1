module kubepkg.dev/gostd-oracle

go 1.26
