package local

import (
	"net"
	"net/http"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/apiserver"
)

// ServeMemberAPIs serves every live member's client API on a loopback port
// with options o, every member checking acl for private reads (nil: leave
// each member's ACL as it is). It returns the URLs in member order and a
// function that stops the servers (tests, examples: a private read needs t
// members' APIs).
func (lc *Committee) ServeMemberAPIs(o apiserver.APIOptions, acl consensus.ACL) ([]string, func(), error) {
	var urls []string
	var srvs []*http.Server
	stop := func() {
		for _, s := range srvs {
			_ = s.Close()
		}
	}
	for i := range lc.Members {
		m := lc.Member(uint32(i + 1))
		if m == nil {
			continue
		}
		if acl != nil {
			m.SetACL(acl)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			stop()
			return nil, nil, err
		}
		srv, err := apiserver.NewAPIServer(m, ln.Addr().String(), o)
		if err != nil {
			ln.Close()
			stop()
			return nil, nil, err
		}
		go func() { _ = apiserver.ServeAPI(srv, ln) }()
		srvs = append(srvs, srv)
		urls = append(urls, "http://"+ln.Addr().String())
	}
	return urls, stop, nil
}
