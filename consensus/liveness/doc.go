// Package liveness keeps one committee member's liveness marks on its peers.
//
// A member that does not answer a round in time is marked down: the next
// rounds neither wait for it nor pick it as an active member. A mark must
// come off again, or a committee can talk itself into silence: under CPU
// pressure every member may miss every other's answer in the same round,
// each then believes it is alone, stops sending to the others, and — if a
// mark came off only when the marked member spoke in a session — none ever
// hears from another again (a liveness deadlock).
//
// So every member sends every peer a heartbeat (transport.TypePing) every
// MemberConfig.Heartbeat, whatever it believes about them, carrying its
// progress: the highest block whose requests its serve loop has handled
// (0 for a member that serves no chain). A mark records the receiver's own
// progress; it comes off when a heartbeat sent after the mark reports at
// least that progress. A member that was only slow is re-admitted one
// heartbeat after it is heard again; a member that fell behind (catching
// up on old blocks, or restarted) is re-admitted once it reached the
// blocks its peers were on when they marked it, so no new request waits on
// it while it replays or skips what the chain already decided. The
// heartbeat needs no session: it flows even when every member marks every
// other at once, which is what breaks the deadlock.
//
// Marks are one member's view: members may disagree for a while about who
// is down. What keeps them in the same sessions is the serve loop's
// schedule (consensus/serve.go, "Schedule"): every member runs the same
// steps in the same order, so a disagreement costs the marked member its
// part in a request, never the request.
package liveness
