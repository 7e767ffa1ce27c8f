# The two commands of the Quick start are `make start` and `make test`; the rest are their parts.
.PHONY: setup build start test lint typecheck unit integration e2e bench

setup:
	@bash scripts/setup.sh

build: setup
	@bash scripts/build-if-stale.sh

start: build
	@npm start --silent

lint:
	npm run lint --silent

typecheck:
	npm run typecheck --silent

unit:
	npm run test:unit --silent

integration:
	npm run test:integration --silent

e2e:
	npm run test:e2e --silent

test: build
	@bash scripts/test.sh

bench: build
	npm run bench --silent
