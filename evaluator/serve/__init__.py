"""`sdeval serve`: the evidence form served on 127.0.0.1, assessed live by sdeval itself.

The offline form (evaluator/form) checks the schema and a few counts in JavaScript; the verdict
needs the rules. Served, the page posts what is typed to this process, which runs the same
pipeline as `sdeval assess` (with the buyer's profile when one was given) and answers with the
assessment document and the text `assess` prints; the page shows those, word for word.

Only this user's browser may ask: the server binds to loopback, every request must carry the
random token printed in the URL, the Host header must name the loopback address it listens on
(no DNS rebinding), and assessing needs a custom header, which a page from elsewhere cannot send
without a CORS preflight this server never grants.
"""
