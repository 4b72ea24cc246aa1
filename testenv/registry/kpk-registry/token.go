package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/crypto/bcrypt"
)

// tokenIssuerKey is the token endpoint of the bearer flow (the Docker token
// specification): it checks the user against the htpasswd file and signs a
// JWT granting the scopes asked for; the registry trusts its key through a
// JWKS file.
type tokenIssuerKey struct {
	key *ecdsa.PrivateKey
	kid string
}

func newTokenIssuer(jwksPath string) (*tokenIssuerKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	t := &tokenIssuerKey{key: key, kid: hex.EncodeToString(id)}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: t.kid, Algorithm: "ES256", Use: "sig"}}}
	raw, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	return t, os.WriteFile(jwksPath, raw, 0o644)
}

type access struct {
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	Actions []string `json:"actions"`
}

func (t *tokenIssuerKey) handler(users map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="kpk-registry-token"`)
			http.Error(w, "credentials required", http.StatusUnauthorized)
			return
		}
		hash, known := users[user]
		if !known || bcrypt.CompareHashAndPassword([]byte(hash), []byte(pass)) != nil {
			http.Error(w, "wrong credentials", http.StatusUnauthorized)
			return
		}
		var grants []access
		for _, scope := range r.URL.Query()["scope"] {
			for _, s := range strings.Split(scope, " ") {
				parts := strings.Split(s, ":")
				if len(parts) < 3 {
					continue
				}
				name := strings.Join(parts[1:len(parts)-1], ":")
				grants = append(grants, access{Type: parts[0], Name: name, Actions: strings.Split(parts[len(parts)-1], ",")})
			}
		}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: t.key},
			(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", t.kid))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		now := time.Now()
		claims := struct {
			jwt.Claims
			Access []access `json:"access"`
		}{
			Claims: jwt.Claims{
				Issuer:    tokenIssuer,
				Subject:   user,
				Audience:  jwt.Audience{tokenService},
				Expiry:    jwt.NewNumericDate(now.Add(5 * time.Minute)),
				NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
				IssuedAt:  jwt.NewNumericDate(now),
				ID:        hex.EncodeToString(t.key.X.Bytes()[:4]) + now.Format("150405.000000000"),
			},
			Access: grants,
		}
		signed, err := jwt.Signed(signer).Claims(claims).Serialize()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"token": signed, "access_token": signed, "expires_in": 300, "issued_at": now.UTC().Format(time.RFC3339)})
	})
}

func readHtpasswd(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	users := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if user, hash, ok := strings.Cut(line, ":"); ok && line != "" {
			users[user] = hash
		}
	}
	return users, s.Err()
}

func htpasswdLine(user, password string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	_, err = os.Stdout.WriteString(user + ":" + string(hash) + "\n")
	return err
}
