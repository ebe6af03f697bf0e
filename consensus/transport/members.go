package transport

// Without returns ids without the members of bad, in ids' order.
func Without(ids, bad []MemberID) []MemberID {
	var out []MemberID
	for _, id := range ids {
		skip := false
		for _, b := range bad {
			skip = skip || b == id
		}
		if !skip {
			out = append(out, id)
		}
	}
	return out
}
