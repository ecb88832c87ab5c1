from lib.cli import main

raise SystemExit(main())
